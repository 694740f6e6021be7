require 'shop/order'

RSpec.describe Shop::Order do
  it 'totals' do
    expect(Shop::Order.new.total).to eq(20)
  end
end
